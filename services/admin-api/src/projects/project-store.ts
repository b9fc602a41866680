import { Prisma, type PrismaClient, type Project } from "@gw/db";
import { AdminErrors } from "../errors.js";
import type { RoutingBody } from "./project-schemas.js";

/** Reads and checks the project routes share: lookups that 404, references that must exist. */

export type ProjectWithModels = Project & { models: { modelId: string }[] };

/** The project's models in the project's order (`project_models.position`). */
export const withModels = { models: { select: { modelId: true }, orderBy: { position: "asc" } } } as const;

export async function projectBySlugOr404(prisma: PrismaClient, slug: string): Promise<ProjectWithModels> {
  const project = await prisma.project.findUnique({ where: { slug }, include: withModels });
  if (!project) throw AdminErrors.notFound(`The project "${slug}"`);
  return project;
}

export async function projectByIdOr404(prisma: PrismaClient, id: string): Promise<ProjectWithModels> {
  const project = await prisma.project.findUnique({ where: { id }, include: withModels });
  if (!project) throw AdminErrors.notFound(`The project "${id}"`);
  return project;
}

/** Every id names a stored model; otherwise a 400 naming the first that does not, and where. */
export async function assertModelsExist(prisma: PrismaClient, field: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await prisma.model.findMany({ where: { id: { in: ids } }, select: { id: true } });
  const known = new Set(found.map((model) => model.id));
  const unknown = ids.find((modelId) => !known.has(modelId));
  if (unknown !== undefined) throw AdminErrors.invalid(`${field}: no model has the id "${unknown}".`);
}

/** The models `routing.llm` names: the routing model and its fallbacks. */
export async function assertRoutingModelsExist(
  prisma: PrismaClient,
  routing: RoutingBody | null | undefined,
) {
  if (!routing?.llm) return;
  await assertModelsExist(prisma, "routing.llm.modelId", [routing.llm.modelId]);
  await assertModelsExist(prisma, "routing.llm.fallbackModelIds", routing.llm.fallbackModelIds ?? []);
}

export async function assertSpendGroupExists(prisma: PrismaClient, id: string | null | undefined) {
  if (!id) return;
  if (!(await prisma.spendGroup.findUnique({ where: { id }, select: { id: true } })))
    throw AdminErrors.invalid(`spendGroupId: no spend group has the id "${id}".`);
}

export async function assertSlugFree(prisma: PrismaClient, slug: string): Promise<void> {
  if (await prisma.project.findUnique({ where: { slug }, select: { id: true } })) throw slugTaken(slug);
}

export const slugTaken = (slug: string) => AdminErrors.conflict(`Another project uses the slug "${slug}".`);

/** A unique-constraint violation: two writers raced past the check before it (a 409, not a 500). */
export function isUniqueViolation(error: unknown): boolean {
  return (
    (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") ||
    (error as { code?: unknown })?.code === "P2002"
  );
}

/** A nullable JSON column: `null` must be written as SQL NULL (Prisma refuses a bare null). */
export function nullableJson(value: object | null): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** The assignment rows of `modelIds`, in that order. */
export function assignments(projectId: string, modelIds: string[]) {
  return modelIds.map((modelId, position) => ({ projectId, modelId, position }));
}
