// A model's aliases as badges ("production → v3"); production stands out.
export type AliasLabel = { alias: string; number?: number };

export function AliasBadges({ aliases, label }: { aliases: AliasLabel[]; label: string }) {
  if (!aliases.length) return <span className="subtle">no alias</span>;
  return (
    <span className="rg-aliases" aria-label={label}>
      {aliases.map(({ alias, number }) => (
        <span key={alias} className={`badge ${alias === "production" ? "badge-success" : "badge-accent"}`}>
          {alias}
          {number !== undefined && <> → v{number}</>}
        </span>
      ))}
    </span>
  );
}
