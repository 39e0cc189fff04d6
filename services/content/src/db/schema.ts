// The content module's tables; its routes arrive with them.
export {};
