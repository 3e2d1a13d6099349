// The two database engines a store runs on.
export type Engine = "sqlite" | "postgres";
