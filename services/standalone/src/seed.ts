import { newId, type PrismaClient } from "@gw/db";
import { encryptSecret, generateProjectToken, hashToken, tokenDisplayPrefix } from "@gw/security";

export interface SeedOptions {
  projectSlug: string;
  projectName?: string;
  modelId: string;
  provider: string;
  baseUrl?: string | undefined;
  upstreamModel?: string | undefined;
  apiKey?: string | undefined;
  inputPrice?: number;
  outputPrice?: number;
  budgets?: unknown[];
  /** Declared capabilities; none (the default) means unknown, and routing lets the model serve everything. */
  capabilities?: string[];
  tokenName?: string;
}

export interface SeedResult {
  projectId: string;
  modelId: string;
  tokenId: string;
  /** The token value: shown once, only its hash is stored. */
  token: string;
}

/**
 * Create (or update) a project with one model and a fresh token. Until the management API exists
 * this is how a gateway gets its first configuration; tests use it too.
 */
export async function seedProject(
  prisma: PrismaClient,
  secretKey: Buffer,
  options: SeedOptions,
): Promise<SeedResult> {
  const model = {
    provider: options.provider,
    baseUrl: options.baseUrl ?? null,
    upstreamModel: options.upstreamModel ?? null,
    apiKeyEncrypted: options.apiKey ? encryptSecret(options.apiKey, secretKey) : null,
    inputPrice: options.inputPrice ?? 0.15,
    outputPrice: options.outputPrice ?? 0.6,
    contextWindow: 128_000,
    capabilities: options.capabilities ?? [],
  };
  await prisma.model.upsert({
    where: { id: options.modelId },
    create: { id: options.modelId, ...model },
    update: model,
  });
  const existing = await prisma.project.findUnique({ where: { slug: options.projectSlug } });
  const project =
    existing ??
    (await prisma.project.create({
      data: {
        id: newId("proj"),
        name: options.projectName ?? options.projectSlug,
        slug: options.projectSlug,
        budgets: (options.budgets ?? []) as object[],
      },
    }));
  if (existing && options.budgets)
    await prisma.project.update({
      where: { id: project.id },
      data: { budgets: options.budgets as object[] },
    });
  const position = await prisma.projectModel.count({ where: { projectId: project.id } });
  await prisma.projectModel.upsert({
    where: { projectId_modelId: { projectId: project.id, modelId: options.modelId } },
    create: { projectId: project.id, modelId: options.modelId, position },
    update: {},
  });
  const token = generateProjectToken();
  const tokenRow = await prisma.projectToken.create({
    data: {
      id: newId("tok"),
      projectId: project.id,
      name: options.tokenName ?? "seed",
      tokenHash: hashToken(token),
      prefix: tokenDisplayPrefix(token),
    },
  });
  return { projectId: project.id, modelId: options.modelId, tokenId: tokenRow.id, token };
}
