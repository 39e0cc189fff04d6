import { defineConfig } from 'drizzle-kit';

/** The media half of content keeps its own schema file and migrations folder (one journal table each). */
export default defineConfig({ dialect: 'postgresql', schema: './src/db/media.ts', out: './drizzle/media' });
