import { defineConfig } from 'drizzle-kit';

/** The website half of content keeps its own schema file and migrations folder (one journal table each). */
export default defineConfig({ dialect: 'postgresql', schema: ['./src/db/website.ts', './src/db/registrations.ts'], out: './drizzle/website' });
