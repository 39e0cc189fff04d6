-- A streaming service's `duration` is kept in seconds, the unit the apps send and read (as `earlyStart`,
-- `chatBefore` and `chatAfter` already were); rows saved in minutes are converted so each keeps its length.
ALTER TABLE "streaming_services" ALTER COLUMN "duration" SET DEFAULT 3600;--> statement-breakpoint
UPDATE "streaming_services" SET "duration" = "duration" * 60;
