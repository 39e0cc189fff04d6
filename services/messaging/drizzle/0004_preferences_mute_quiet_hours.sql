ALTER TABLE "notification_preferences" ADD COLUMN "master_mute" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD COLUMN "quiet_hours_start" text;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD COLUMN "quiet_hours_end" text;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD COLUMN "time_zone" text;