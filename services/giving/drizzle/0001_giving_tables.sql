CREATE TABLE "customers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid,
	"provider" text NOT NULL,
	"provider_customer_id" text NOT NULL,
	"email" text,
	"name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "donation_batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"batch_date" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "donations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"batch_id" uuid,
	"person_id" uuid,
	"donation_date" timestamp with time zone DEFAULT now() NOT NULL,
	"amount" numeric(12, 2) NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"method" text,
	"method_details" text,
	"notes" text,
	"status" text DEFAULT 'complete' NOT NULL,
	"transaction_id" text,
	"provider" text,
	"fee" numeric(12, 2) DEFAULT '0' NOT NULL,
	"refunded_amount" numeric(12, 2) DEFAULT '0' NOT NULL,
	"subscription_id" uuid,
	"email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_logs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"customer_id" text,
	"provider" text,
	"provider_id" text,
	"event_type" text NOT NULL,
	"status" text,
	"message" text,
	"resolved" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fund_donations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"donation_id" uuid NOT NULL,
	"fund_id" uuid NOT NULL,
	"amount" numeric(12, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "funds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"tax_deductible" boolean DEFAULT true NOT NULL,
	"visible" boolean DEFAULT true NOT NULL,
	"product_id" text,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gateways" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"public_key" text,
	"private_key" text,
	"webhook_key" text,
	"webhook_id" text,
	"product_id" text,
	"pay_fees" boolean DEFAULT false NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"fee_settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"church_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status_code" integer,
	"response" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_methods" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid,
	"customer_id" uuid,
	"provider" text NOT NULL,
	"provider_method_id" text NOT NULL,
	"type" text NOT NULL,
	"brand" text,
	"last4" text,
	"exp_month" integer,
	"exp_year" integer,
	"bank_name" text,
	"status" text DEFAULT 'verified' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_funds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"subscription_id" uuid NOT NULL,
	"fund_id" uuid NOT NULL,
	"amount" numeric(12, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid,
	"customer_id" uuid,
	"provider" text NOT NULL,
	"provider_subscription_id" text NOT NULL,
	"amount" numeric(12, 2) NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"interval" text DEFAULT 'month' NOT NULL,
	"interval_count" integer DEFAULT 1 NOT NULL,
	"billing_cycle_anchor" timestamp with time zone,
	"status" text DEFAULT 'active' NOT NULL,
	"fee" numeric(12, 2) DEFAULT '0' NOT NULL,
	"payment_method_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
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
CREATE UNIQUE INDEX "customers_church_provider_customer_idx" ON "customers" USING btree ("church_id","provider","provider_customer_id");--> statement-breakpoint
CREATE INDEX "customers_church_person_idx" ON "customers" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "donation_batches_church_date_idx" ON "donation_batches" USING btree ("church_id","batch_date");--> statement-breakpoint
CREATE UNIQUE INDEX "donations_church_transaction_idx" ON "donations" USING btree ("church_id","transaction_id");--> statement-breakpoint
CREATE INDEX "donations_church_date_idx" ON "donations" USING btree ("church_id","donation_date");--> statement-breakpoint
CREATE INDEX "donations_church_person_date_idx" ON "donations" USING btree ("church_id","person_id","donation_date");--> statement-breakpoint
CREATE INDEX "donations_church_batch_idx" ON "donations" USING btree ("church_id","batch_id");--> statement-breakpoint
CREATE INDEX "event_logs_church_type_idx" ON "event_logs" USING btree ("church_id","event_type","created_at");--> statement-breakpoint
CREATE INDEX "event_logs_church_created_idx" ON "event_logs" USING btree ("church_id","created_at");--> statement-breakpoint
CREATE INDEX "fund_donations_church_donation_idx" ON "fund_donations" USING btree ("church_id","donation_id");--> statement-breakpoint
CREATE INDEX "fund_donations_church_fund_idx" ON "fund_donations" USING btree ("church_id","fund_id","donation_id");--> statement-breakpoint
CREATE INDEX "funds_church_name_idx" ON "funds" USING btree ("church_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "gateways_church_provider_idx" ON "gateways" USING btree ("church_id","provider");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_keys_church_scope_key_idx" ON "idempotency_keys" USING btree ("church_id","scope","key");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_methods_church_provider_method_idx" ON "payment_methods" USING btree ("church_id","provider","provider_method_id");--> statement-breakpoint
CREATE INDEX "payment_methods_church_person_idx" ON "payment_methods" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "subscription_funds_church_sub_idx" ON "subscription_funds" USING btree ("church_id","subscription_id");--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_church_provider_sub_idx" ON "subscriptions" USING btree ("church_id","provider","provider_subscription_id");--> statement-breakpoint
CREATE INDEX "subscriptions_church_person_idx" ON "subscriptions" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "subscriptions_church_customer_idx" ON "subscriptions" USING btree ("church_id","customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_church_provider_event_idx" ON "webhook_events" USING btree ("church_id","provider","event_id");--> statement-breakpoint
CREATE INDEX "webhook_events_church_received_idx" ON "webhook_events" USING btree ("church_id","received_at");