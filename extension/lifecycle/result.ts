/** The results of the lifecycle's own tools: the value as JSON text, and as details. */

export function textResult(value: unknown, isError = false, terminate = false) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(value) }],
    details: value as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
    ...(terminate ? { terminate: true } : {}),
  };
}

/** The parameters of a tool that takes none. */
export const NO_PARAMETERS = { type: "object", properties: {}, additionalProperties: false };
