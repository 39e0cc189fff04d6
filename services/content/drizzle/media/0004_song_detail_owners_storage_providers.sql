CREATE TABLE "storage_providers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"api_key" text,
	"api_secret" text,
	"settings" text,
	"access_token" text,
	"refresh_token" text,
	"token_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "song_details_sheet_music_idx";--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "provider_id" uuid;--> statement-breakpoint
ALTER TABLE "song_detail_links" ADD COLUMN "church_id" uuid;--> statement-breakpoint
ALTER TABLE "song_details" ADD COLUMN "church_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "storage_providers_church_provider_idx" ON "storage_providers" USING btree ("church_id","provider");--> statement-breakpoint
CREATE INDEX "song_details_church_idx" ON "song_details" USING btree ("church_id");--> statement-breakpoint
CREATE UNIQUE INDEX "song_details_sheet_music_idx" ON "song_details" USING btree ("sheet_music_id") WHERE "song_details"."church_id" is null;--> statement-breakpoint
-- Hand-added: rows entered by a church before ownership existed become that church's own (`created_by` is
-- `<userId>@<churchId>`); provider imports (a `sheet_music_id`) stay global.
UPDATE "song_details" SET "church_id" = split_part("created_by", '@', 2)::uuid WHERE "sheet_music_id" IS NULL AND "created_by" ~ '@[0-9a-f-]{36}$';--> statement-breakpoint
UPDATE "song_detail_links" SET "church_id" = split_part("created_by", '@', 2)::uuid WHERE "created_by" ~ '@[0-9a-f-]{36}$';
