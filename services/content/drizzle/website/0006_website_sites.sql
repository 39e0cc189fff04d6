DROP INDEX "global_styles_church_idx";--> statement-breakpoint
DROP INDEX "pages_church_url_idx";--> statement-breakpoint
ALTER TABLE "blocks" ADD COLUMN "site_id" uuid;--> statement-breakpoint
ALTER TABLE "global_styles" ADD COLUMN "site_id" uuid;--> statement-breakpoint
ALTER TABLE "global_styles" ADD COLUMN "nav_styles" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "site_id" uuid;--> statement-breakpoint
ALTER TABLE "pages" ADD COLUMN "site_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "global_styles_church_site_idx" ON "global_styles" USING btree ("church_id",coalesce("site_id", '00000000-0000-0000-0000-000000000000'::uuid));--> statement-breakpoint
CREATE UNIQUE INDEX "pages_church_site_url_idx" ON "pages" USING btree ("church_id",coalesce("site_id", '00000000-0000-0000-0000-000000000000'::uuid),"url");