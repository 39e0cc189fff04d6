CREATE TABLE "web_push_subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"app_name" text,
	"device_info" text,
	"registration_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_active_date" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "web_push_subscriptions_endpoint_idx" ON "web_push_subscriptions" USING btree ("endpoint");--> statement-breakpoint
CREATE INDEX "web_push_subscriptions_person_idx" ON "web_push_subscriptions" USING btree ("church_id","person_id");