-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "defaultTimeoutMs" INTEGER,
    "policies" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "budgets" JSONB NOT NULL DEFAULT '[]',
    "guardrails" JSONB,
    "pii" JSONB,
    "notifications" JSONB,
    "routing" JSONB,
    "spendGroupId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "models" (
    "id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "upstreamModel" TEXT,
    "apiKeyEncrypted" TEXT,
    "inputPrice" DECIMAL(24,12),
    "outputPrice" DECIMAL(24,12),
    "cachePrice" DECIMAL(24,12),
    "cacheWritePrice" DECIMAL(24,12),
    "pricingTiers" JSONB,
    "contextWindow" INTEGER,
    "maxOutputTokens" INTEGER,
    "capabilities" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "baseUrl" TEXT,
    "fieldOverrides" JSONB,
    "catalogDefaults" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_models" (
    "projectId" TEXT NOT NULL,
    "modelId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "project_models_pkey" PRIMARY KEY ("projectId","modelId")
);

-- CreateTable
CREATE TABLE "project_tokens" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tags" JSONB NOT NULL DEFAULT '{}',
    "limits" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "project_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_records" (
    "id" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL,
    "projectId" TEXT NOT NULL,
    "projectSlug" TEXT NOT NULL,
    "tokenId" TEXT,
    "modelId" TEXT,
    "provider" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cacheTokens" INTEGER NOT NULL DEFAULT 0,
    "totalTokens" INTEGER NOT NULL DEFAULT 0,
    "costMicros" BIGINT,
    "durationMs" INTEGER NOT NULL DEFAULT 0,
    "outcome" TEXT NOT NULL,
    "status" INTEGER NOT NULL DEFAULT 200,
    "traceId" TEXT NOT NULL,
    "callType" TEXT NOT NULL DEFAULT 'completion',
    "sessionId" TEXT,
    "endUserId" TEXT,
    "tags" JSONB NOT NULL DEFAULT '{}',
    "guardrailTriggered" TEXT,
    "blockedBy" TEXT,
    "piiRedacted" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "trace" JSONB NOT NULL DEFAULT '[]',
    "errorMessage" TEXT,
    "streamed" BOOLEAN NOT NULL DEFAULT false,
    "endpoint" TEXT,
    "storedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_entries" (
    "id" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL,
    "userId" TEXT,
    "email" TEXT,
    "endpoint" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "projects_slug_key" ON "projects"("slug");

-- CreateIndex
CREATE INDEX "project_models_modelId_idx" ON "project_models"("modelId");

-- CreateIndex
CREATE UNIQUE INDEX "project_tokens_tokenHash_key" ON "project_tokens"("tokenHash");

-- CreateIndex
CREATE INDEX "project_tokens_projectId_idx" ON "project_tokens"("projectId");

-- CreateIndex
CREATE INDEX "usage_records_projectId_timestamp_idx" ON "usage_records"("projectId", "timestamp");

-- CreateIndex
CREATE INDEX "usage_records_timestamp_idx" ON "usage_records"("timestamp");

-- CreateIndex
CREATE INDEX "usage_records_traceId_idx" ON "usage_records"("traceId");

-- CreateIndex
CREATE INDEX "audit_entries_timestamp_idx" ON "audit_entries"("timestamp");

-- AddForeignKey
ALTER TABLE "project_models" ADD CONSTRAINT "project_models_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_models" ADD CONSTRAINT "project_models_modelId_fkey" FOREIGN KEY ("modelId") REFERENCES "models"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_tokens" ADD CONSTRAINT "project_tokens_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
