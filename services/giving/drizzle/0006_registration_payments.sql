CREATE TABLE "registration_payments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"registration_id" uuid NOT NULL,
	"person_id" uuid,
	"email" text,
	"name" text,
	"gateway_id" uuid,
	"provider" text NOT NULL,
	"transaction_id" text,
	"amount" numeric(12, 2) NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"method" text,
	"client_secret" text,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "registration_payments_church_key_idx" ON "registration_payments" USING btree ("church_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "registration_payments_church_transaction_idx" ON "registration_payments" USING btree ("church_id","transaction_id");--> statement-breakpoint
CREATE INDEX "registration_payments_church_registration_idx" ON "registration_payments" USING btree ("church_id","registration_id");--> statement-breakpoint
CREATE INDEX "registration_payments_church_person_idx" ON "registration_payments" USING btree ("church_id","person_id") WHERE person_id is not null;--> statement-breakpoint
CREATE INDEX "donations_church_complete_date_idx" ON "donations" USING btree ("church_id","donation_date","person_id") WHERE status = 'complete' and person_id is not null;