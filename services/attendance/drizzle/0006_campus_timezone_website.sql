ALTER TABLE "campuses" ADD COLUMN "timezone" text;--> statement-breakpoint
ALTER TABLE "campuses" ADD COLUMN "website" text;