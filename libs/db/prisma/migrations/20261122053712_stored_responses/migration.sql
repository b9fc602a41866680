-- AlterTable
ALTER TABLE "project_tokens" ADD COLUMN     "extraProjectIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "stored_responses" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "messages" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stored_responses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stored_responses_createdAt_idx" ON "stored_responses"("createdAt");
