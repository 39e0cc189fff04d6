// The reporting module's tables; its routes arrive with them.
export {};
