CREATE TABLE "blocked_ips" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"conversation_id" uuid,
	"service_id" uuid,
	"ip_address" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "consent_logs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"phone" text NOT NULL,
	"keyword" text NOT NULL,
	"action" text NOT NULL,
	"person_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"provider_message_id" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"content_type" text NOT NULL,
	"content_id" text NOT NULL,
	"title" text,
	"date_created" timestamp with time zone DEFAULT now() NOT NULL,
	"group_id" uuid,
	"visibility" text,
	"allow_anonymous_posts" boolean DEFAULT false NOT NULL,
	"first_post_id" uuid,
	"last_post_id" uuid,
	"post_count" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_logs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid,
	"content_type" text,
	"content_id" text,
	"channel" text NOT NULL,
	"recipient" text,
	"provider" text,
	"status" text NOT NULL,
	"provider_message_id" text,
	"error" text,
	"sent_text_id" uuid,
	"attempted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_contents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"device_id" uuid NOT NULL,
	"content_type" text NOT NULL,
	"content_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid,
	"person_id" uuid,
	"app_name" text,
	"device_id" text,
	"label" text,
	"push_token" text,
	"device_info" text,
	"registration_date" timestamp with time zone DEFAULT now() NOT NULL,
	"last_active_date" timestamp with time zone DEFAULT now() NOT NULL,
	"pairing_code" text,
	"paired" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"html_content" text DEFAULT '' NOT NULL,
	"category" text,
	"date_created" timestamp with time zone DEFAULT now() NOT NULL,
	"date_modified" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"person_id" uuid,
	"display_name" text,
	"time_sent" timestamp with time zone DEFAULT now() NOT NULL,
	"time_updated" timestamp with time zone,
	"content" text DEFAULT '' NOT NULL,
	"message_type" text DEFAULT 'comment' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"allow_push" boolean DEFAULT true NOT NULL,
	"email_frequency" text DEFAULT 'daily' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"content_type" text,
	"content_id" text,
	"time_sent" timestamp with time zone DEFAULT now() NOT NULL,
	"is_new" boolean DEFAULT true NOT NULL,
	"message" text NOT NULL,
	"link" text,
	"delivery_method" text,
	"triggered_by_person_id" uuid,
	"emailed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "private_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"from_person_id" uuid NOT NULL,
	"to_person_id" uuid NOT NULL,
	"notify_person_id" uuid,
	"delivery_method" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sent_texts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"group_id" uuid,
	"recipient_person_id" uuid,
	"message" text NOT NULL,
	"sender_person_id" uuid,
	"provider_id" uuid,
	"time_sent" timestamp with time zone DEFAULT now() NOT NULL,
	"total_members" integer DEFAULT 0 NOT NULL,
	"recipient_count" integer DEFAULT 0 NOT NULL,
	"success_count" integer DEFAULT 0 NOT NULL,
	"fail_count" integer DEFAULT 0 NOT NULL,
	"opted_out_count" integer DEFAULT 0 NOT NULL,
	"no_phone_count" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "texting_providers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"provider" text DEFAULT 'twilio' NOT NULL,
	"name" text,
	"api_key" text,
	"api_secret" text,
	"from_number" text,
	"enabled" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"outcome" text
);
--> statement-breakpoint
CREATE INDEX "blocked_ips_service_idx" ON "blocked_ips" USING btree ("church_id","service_id");--> statement-breakpoint
CREATE INDEX "consent_logs_church_idx" ON "consent_logs" USING btree ("church_id","received_at");--> statement-breakpoint
CREATE INDEX "conversations_content_idx" ON "conversations" USING btree ("church_id","content_type","content_id");--> statement-breakpoint
CREATE INDEX "conversations_group_idx" ON "conversations" USING btree ("church_id","group_id");--> statement-breakpoint
CREATE INDEX "delivery_logs_church_idx" ON "delivery_logs" USING btree ("church_id","attempted_at");--> statement-breakpoint
CREATE INDEX "delivery_logs_person_idx" ON "delivery_logs" USING btree ("church_id","person_id","attempted_at");--> statement-breakpoint
CREATE INDEX "delivery_logs_content_idx" ON "delivery_logs" USING btree ("church_id","content_type","content_id");--> statement-breakpoint
CREATE INDEX "delivery_logs_provider_msg_idx" ON "delivery_logs" USING btree ("provider_message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "delivery_logs_sent_text_person_idx" ON "delivery_logs" USING btree ("sent_text_id","person_id");--> statement-breakpoint
CREATE INDEX "device_contents_device_idx" ON "device_contents" USING btree ("church_id","device_id");--> statement-breakpoint
CREATE INDEX "devices_church_idx" ON "devices" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "devices_push_token_idx" ON "devices" USING btree ("push_token");--> statement-breakpoint
CREATE INDEX "devices_device_id_idx" ON "devices" USING btree ("device_id");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_pairing_code_idx" ON "devices" USING btree ("pairing_code");--> statement-breakpoint
CREATE INDEX "email_templates_church_idx" ON "email_templates" USING btree ("church_id");--> statement-breakpoint
CREATE INDEX "messages_conversation_idx" ON "messages" USING btree ("church_id","conversation_id","time_sent");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_preferences_person_idx" ON "notification_preferences" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "notifications_person_idx" ON "notifications" USING btree ("church_id","person_id","time_sent");--> statement-breakpoint
CREATE INDEX "notifications_unread_idx" ON "notifications" USING btree ("is_new","emailed_at");--> statement-breakpoint
CREATE INDEX "private_messages_from_idx" ON "private_messages" USING btree ("church_id","from_person_id");--> statement-breakpoint
CREATE INDEX "private_messages_to_idx" ON "private_messages" USING btree ("church_id","to_person_id");--> statement-breakpoint
CREATE UNIQUE INDEX "private_messages_conversation_idx" ON "private_messages" USING btree ("church_id","conversation_id");--> statement-breakpoint
CREATE INDEX "sent_texts_church_idx" ON "sent_texts" USING btree ("church_id","time_sent");--> statement-breakpoint
CREATE INDEX "texting_providers_church_idx" ON "texting_providers" USING btree ("church_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_church_provider_event_idx" ON "webhook_events" USING btree ("church_id","provider","event_id");--> statement-breakpoint
CREATE INDEX "webhook_events_church_received_idx" ON "webhook_events" USING btree ("church_id","received_at");