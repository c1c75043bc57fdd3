// "Register a version": a checkpoint of the team (chosen by run, then step), or a base model of
// the catalogue as a baseline.
import { useState } from "react";

import { CheckpointPicker } from "@/components/checkpoint-picker/checkpoint-picker";
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
      <CheckpointPicker value={checkpoint} onChange={setCheckpoint} className="" />
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
