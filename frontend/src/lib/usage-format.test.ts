import { describe, expect, it } from "vitest";

import { formatCost, formatHours, formatTokens } from "./usage-format";

describe("usage figures", () => {
  it("shows hours with the precision their size needs", () => {
    expect(formatHours(0)).toBe("0 h");
    expect(formatHours(0.0042)).toBe("0.0042 h");
    expect(formatHours(1.256)).toBe("1.26 h");
    expect(formatHours(1234.4)).toBe("1,234 h");
  });

  it("shortens token counts", () => {
    expect([formatTokens(812), formatTokens(12_400), formatTokens(3_140_000)]).toEqual(["812", "12.4k", "3.1M"]);
  });

  it("prices in the rate's currency", () => {
    expect(formatCost(0, "USD")).toBe("0 USD");
    expect(formatCost(0.003123, "EUR")).toBe("0.0031 EUR");
    expect(formatCost(12.4, "USD")).toBe("12.40 USD");
  });
});
