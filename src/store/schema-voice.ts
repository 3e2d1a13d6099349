// The voice family's tables (issue 9), as Kysely sees them; `Database` extends this.
export type VoiceTables = Record<never, never>;
