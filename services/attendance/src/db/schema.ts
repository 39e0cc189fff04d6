// The attendance module's tables; its routes arrive with them.
export {};
