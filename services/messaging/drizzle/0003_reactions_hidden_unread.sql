CREATE TABLE "message_reactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"emoji" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "notifications_person_unread_idx";--> statement-breakpoint
ALTER TABLE "private_messages" ADD COLUMN "hidden_by_from" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "private_messages" ADD COLUMN "hidden_by_to" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "message_reactions_person_idx" ON "message_reactions" USING btree ("church_id","message_id","person_id","emoji");--> statement-breakpoint
CREATE INDEX "message_reactions_conversation_idx" ON "message_reactions" USING btree ("church_id","conversation_id");--> statement-breakpoint
CREATE INDEX "notifications_person_unread_type_idx" ON "notifications" USING btree ("church_id","person_id","content_type") WHERE "notifications"."is_new";--> statement-breakpoint
CREATE INDEX "private_messages_notify_idx" ON "private_messages" USING btree ("church_id","notify_person_id") WHERE "private_messages"."notify_person_id" is not null;