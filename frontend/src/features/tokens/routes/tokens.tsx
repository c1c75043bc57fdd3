import { useState } from "react";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";

import type { CreatedToken } from "../api/create-token";
import { useTokens, type ApiToken } from "../api/get-tokens";
import { useRevokeToken } from "../api/revoke-token";
import { CreateTokenForm } from "../components/create-token-form";
import { TokenSecret } from "../components/token-secret";
import { TokensTable } from "../components/tokens-table";

export function TokensRoute() {
  const { team, teams } = useCurrentTeam();
  const tokens = useTokens();
  const revoke = useRevokeToken();
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);

  function closeRevoke() {
    setRevoking(null);
    revoke.reset();
  }

  return (
    <>
      <PageHeader
        title="API tokens"
        description={
          <>
            Tokens let scripts, CI jobs and workers call the REST API as you. Send one in the{" "}
            <code>Authorization: Bearer &lt;token&gt;</code> header.
          </>
        }
      />
      <div className="stack">
        {created && <TokenSecret token={created} onDismiss={() => setCreated(null)} />}
        <Card title="New token" description="A token limited to one team cannot touch the others.">
          <div className="card-body">
            <CreateTokenForm teams={teams} defaultTeam={team?.slug ?? null} onCreated={setCreated} />
          </div>
        </Card>
        <Card title="Your tokens">
          <QueryPlaceholder query={tokens} />
          {tokens.data?.length === 0 && (
            <div className="card-body">
              <EmptyState title="No tokens yet" icon="tokens">
                Create a token above to use the API from a script or a CI job.
              </EmptyState>
            </div>
          )}
          {tokens.data && tokens.data.length > 0 && (
            <TokensTable tokens={tokens.data} onRevoke={setRevoking} />
          )}
        </Card>
      </div>
      {revoking && (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel={revoke.isPending ? "Revoking…" : "Revoke token"}
          pending={revoke.isPending}
          error={revoke.error}
          onCancel={closeRevoke}
          onConfirm={() => revoke.mutate(revoking.id, { onSuccess: closeRevoke })}
        >
          Anything using this token will stop working immediately. This cannot be undone.
        </ConfirmDialog>
      )}
    </>
  );
}
