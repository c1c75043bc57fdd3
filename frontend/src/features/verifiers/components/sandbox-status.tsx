import { Card, QueryPlaceholder } from "@/components/ui/card";

import { useSandbox } from "../api/get-sandbox";
import type { SandboxStatus } from "../types";

type Layer = { label: string; on: boolean; title?: string };

function isolationLayers(s: SandboxStatus): Layer[] {
  const namespaces = Object.entries(s.namespaces).map(([name, on]) => ({
    label: `${name} ns`,
    on,
    title: `${name} namespace`,
  }));
  return [
    ...namespaces,
    { label: "read-only root", on: s.readonly_root },
    { label: "seccomp", on: s.seccomp },
    {
      label: s.cgroup_controllers.length ? `cgroups (${s.cgroup_controllers.join(", ")})` : "cgroups",
      on: s.cgroups,
    },
    { label: s.uid === null ? "uid" : `uid ${s.uid}`, on: s.uid !== null && s.uid !== 0, title: "unprivileged user" },
    { label: "rlimits", on: s.rlimits },
    { label: "empty env", on: s.empty_env },
    { label: "pre-forked pool", on: s.prefork },
  ];
}

/** Warnings come first and loud: code that runs with fewer walls than expected is a risk. */
export function SandboxWarnings({ status }: { status: SandboxStatus }) {
  if (status.warnings.length === 0) return null;
  return (
    <div className="alert alert-error" role="alert">
      <strong>Sandbox isolation is reduced.</strong> Model-written code runs with fewer protections:
      <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
        {status.warnings.map((warning) => (
          <li key={warning}>{warning}</li>
        ))}
      </ul>
    </div>
  );
}

export function SandboxLayers({ status }: { status: SandboxStatus }) {
  return (
    <div className="vf-sandbox-layers" aria-label="Isolation layers">
      {isolationLayers(status).map((layer) => (
        <span
          key={layer.label}
          className={`badge ${layer.on ? "badge-success" : "badge-danger"}`}
          title={`${layer.title ?? layer.label}: ${layer.on ? "active" : "not active"}`}
        >
          {layer.on ? "✓" : "✕"} {layer.label}
        </span>
      ))}
    </div>
  );
}

export function SandboxCard() {
  const sandbox = useSandbox();
  const status = sandbox.data;
  const off = status ? isolationLayers(status).filter((l) => !l.on).length : 0;
  return (
    <Card
      title="Sandbox"
      description="Where unit tests and other code-running layers execute: the isolation active on this server."
      actions={
        status &&
        (status.warnings.length || off ? (
          <span className="badge badge-danger">{status.warnings.length || off} issue(s)</span>
        ) : (
          <span className="badge badge-success">All layers active</span>
        ))
      }
    >
      <QueryPlaceholder query={sandbox} />
      {status && (
        <div className="card-body stack" style={{ gap: "var(--space-3)" }}>
          <SandboxWarnings status={status} />
          <SandboxLayers status={status} />
        </div>
      )}
    </Card>
  );
}

/** One line for pages where code runs: the isolation summary, and warnings in full. */
export function SandboxStrip() {
  const sandbox = useSandbox();
  const status = sandbox.data;
  if (!status) return null;
  return (
    <div className="stack" style={{ gap: "var(--space-2)" }}>
      <SandboxWarnings status={status} />
      <div className="row" style={{ flexWrap: "wrap" }}>
        <span className="subtle" style={{ fontSize: "var(--text-sm)" }}>
          Sandbox:
        </span>
        <SandboxLayers status={status} />
      </div>
    </div>
  );
}
