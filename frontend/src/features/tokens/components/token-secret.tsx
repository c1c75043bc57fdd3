import { CopyField } from "@/components/ui/copy-field";

import type { CreatedToken } from "../api/create-token";

export function TokenSecret({ token, onDismiss }: { token: CreatedToken; onDismiss: () => void }) {
  return (
    <section className="card" aria-labelledby="token-secret-title">
      <div className="card-body stack">
        <div>
          <h2 id="token-secret-title">Token “{token.name}” created</h2>
        </div>
        <div className="alert alert-warning" role="status">
          Copy this token now. It is shown only once and cannot be retrieved later.
        </div>
        <CopyField value={token.token} label="New token secret" />
        <div>
          <button type="button" className="btn" onClick={onDismiss}>
            I have copied it
          </button>
        </div>
      </div>
    </section>
  );
}
