ALTER TABLE "pages" ADD COLUMN "published" jsonb;--> statement-breakpoint
ALTER TABLE "pages" ADD COLUMN "published_at" timestamp with time zone;