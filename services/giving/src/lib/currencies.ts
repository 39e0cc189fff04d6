/** ISO 4217 currency codes, lower-cased (the runtime's list, kept with its ICU data). */
export const ISO_4217: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));

/**
 * Currencies without a minor unit at the providers (Stripe's zero-decimal list; PayPal refuses decimals in them).
 * Payments go to the providers in cents (hundredths), which for these would be a hundred times the gift, so they
 * are refused for payments. Manual records in them are kept as entered.
 */
export const ZERO_DECIMAL: ReadonlySet<string> = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
