import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";

import { useLogin, type LoginResult } from "../api/login";

export function LoginForm({ onSuccess }: { onSuccess: (me: LoginResult) => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const login = useLogin({ onSuccess });

  function submit(event: FormEvent) {
    event.preventDefault();
    login.mutate({ username, password });
  }

  return (
    <form className="stack" onSubmit={submit} noValidate>
      <ErrorMessage error={login.error} />
      <Field id="login-username" label="Username">
        <input
          id="login-username"
          className="input"
          name="username"
          autoComplete="username"
          autoFocus
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
      </Field>
      <Field id="login-password" label="Password">
        <input
          id="login-password"
          className="input"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      <button
        type="submit"
        className="btn btn-primary btn-block"
        disabled={login.isPending || !username || !password}
      >
        {login.isPending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
