CREATE TABLE "token_revocations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"church_id" uuid,
	"at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "token_revocations_at_idx" ON "token_revocations" USING btree ("at_ms");