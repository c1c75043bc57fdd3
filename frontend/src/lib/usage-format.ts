// Usage figures as the run page shows them.

/** "0.0042 h", "1.25 h", "312 h". */
export function formatHours(hours: number): string {
  if (!Number.isFinite(hours) || hours === 0) return "0 h";
  if (hours < 0.01) return `${hours.toPrecision(2)} h`;
  if (hours < 100) return `${Number(hours.toFixed(2))} h`;
  return `${Math.round(hours).toLocaleString("en-US")} h`;
}

/** "812", "12.4k", "3.1M". */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${Number((count / 1000).toFixed(1))}k`;
  return `${Number((count / 1_000_000).toFixed(1))}M`;
}

/** "0.0031 USD", "12.40 USD"; free work shows 0. */
export function formatCost(cost: number, currency: string): string {
  const unit = currency ? ` ${currency}` : "";
  if (cost === 0) return `0${unit}`;
  return `${cost < 1 ? cost.toPrecision(2) : cost.toFixed(2)}${unit}`;
}
