-- AlterTable
ALTER TABLE "models" ADD COLUMN     "limits" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "spend_groups" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "limits" JSONB NOT NULL DEFAULT '[]',
    "projectIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "tokenIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "parentGroupId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "spend_groups_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "spend_groups_parentGroupId_idx" ON "spend_groups"("parentGroupId");
