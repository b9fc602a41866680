import rootPackage from "../../../package.json" with { type: "json" };

/** The service version reported by /health and system info: the root package's version. */
export const SERVICE_VERSION: string = rootPackage.version;
