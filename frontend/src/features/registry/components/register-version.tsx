// "Register a version": a checkpoint of the team by id (the run's Checkpoints tab lists them),
// or a base model of the catalogue as a baseline.
import { useState } from "react";

import { ErrorMessage } from "@/components/ui/error-message";

import { useRegisterVersion, type RegisterInput } from "@/lib/registry";

export function RegisterVersion({ model }: { model: number }) {
  const register = useRegisterVersion();
  const [checkpoint, setCheckpoint] = useState("");
  const [baseModel, setBaseModel] = useState("");
  const body: RegisterInput = checkpoint.trim()
    ? { model, checkpoint: Number(checkpoint) }
    : { model, base_model: baseModel.trim() };
  return (
    <form
      className="rg-row"
      aria-label="Register a version"
      onSubmit={(e) => {
        e.preventDefault();
        register.mutate(body, { onSuccess: () => (setCheckpoint(""), setBaseModel("")) });
      }}
    >
      <input
        aria-label="Checkpoint id"
        inputMode="numeric"
        placeholder="Checkpoint id"
        value={checkpoint}
        onChange={(e) => setCheckpoint(e.target.value)}
      />
      <span className="subtle">or</span>
      <input
        aria-label="Base model"
        placeholder="Base model (a baseline)"
        value={baseModel}
        onChange={(e) => setBaseModel(e.target.value)}
      />
      <button
        type="submit"
        className="btn btn-primary"
        disabled={(!checkpoint.trim() && !baseModel.trim()) || register.isPending}
      >
        Register
      </button>
      {register.error && <ErrorMessage error={register.error} />}
    </form>
  );
}
