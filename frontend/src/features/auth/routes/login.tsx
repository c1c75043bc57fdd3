import { Navigate, useNavigate, useSearchParams } from "react-router";

import { Logo } from "@/components/ui/icon";
import { FullPageSpinner } from "@/components/ui/spinner";
import { useMe } from "@/lib/auth";

import { LoginForm } from "../components/login-form";

/** Only same-site paths: `?next=//evil.example` must not become an open redirect. */
export function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

export function LoginRoute() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const me = useMe();
  const next = safeNext(params.get("next"));

  if (me.isPending) return <FullPageSpinner />;
  if (me.data) return <Navigate to={next} replace />;

  return (
    <main className="auth-page">
      <div className="card auth-card">
        <div className="brand">
          <Logo size={24} />
          <span>Crucible</span>
        </div>
        <h1>Sign in</h1>
        <p className="subtitle">Post-training on verifiable tasks</p>
        <LoginForm onSuccess={() => navigate(next, { replace: true })} />
      </div>
    </main>
  );
}
