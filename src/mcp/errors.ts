import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { CugarError, PolicyViolationError, ResourceError, ToolExecutionError, ValidationError, redactText } from '../core/index.ts';

/** Longest part of a server's own message carried into an error (servers are not trusted to be brief). */
const MAX_MESSAGE = 500;

/** `text` cut to {@link MAX_MESSAGE} characters and redacted. */
export function shortText(text: string): string {
  const cut = text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
  return redactText(cut);
}

/** A tool's JSON Schema was refused: not an object schema, too large or deep, or not convertible. Never retryable. */
export class McpSchemaError extends ValidationError {
  constructor(message: string, options: { code?: string; details?: unknown; cause?: unknown } = {}) {
    super(message, { code: 'mcp_schema_invalid', ...options });
  }
}

/** An MCP server could not be reached, crashed, hung past its timeout or closed the connection. Retryable. */
export class McpUnavailableError extends ResourceError {
  constructor(message: string, options: { code?: string; details?: unknown; cause?: unknown; retryable?: boolean } = {}) {
    super(message, { code: 'mcp_unavailable', retryable: true, ...options });
  }
}

/** A profile may not use an MCP server: its command is not on the allow-list, or it needs the network. */
export class McpNotAllowedError extends PolicyViolationError {
  constructor(message: string, options: { code?: string; details?: unknown } = {}) {
    super(message, { code: 'mcp_not_allowed', ...options });
  }
}

/** What a server answered is unusable: a tool error it reported, an oversized or malformed result. */
export class McpToolError extends ToolExecutionError {
  constructor(message: string, options: { code?: string; details?: unknown; cause?: unknown; retryable?: boolean } = {}) {
    super(message, { code: 'mcp_tool_error', ...options });
  }
}

/**
 * Turn whatever a call to `server` threw into a typed error: connection loss and timeouts are
 * {@link McpUnavailableError} (retryable); a protocol error the server sent is a
 * non-retryable {@link McpToolError}; CUGAr's own errors pass through.
 */
export function mcpFailure(error: unknown, server: string, tool?: string): CugarError {
  if (error instanceof CugarError) return error;
  const where = tool ? `${server}/${tool}` : server;
  const details = { server, ...(tool ? { tool } : {}) };
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout)
      return new McpUnavailableError(`MCP server ${where} did not answer in time`, { code: 'mcp_timeout', details, cause: error });
    if (error.code === ErrorCode.ConnectionClosed)
      return new McpUnavailableError(`MCP server ${where} closed the connection`, { code: 'mcp_connection_closed', details, cause: error });
    return new McpToolError(`MCP server ${where} refused the call: ${shortText(error.message)}`, {
      code: 'mcp_protocol_error',
      details: { ...details, mcpCode: error.code },
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  // The SDK checks every answer against the protocol's schemas: an answer that fails them is the server's fault.
  if (error instanceof Error && /ZodError$/.test(error.name))
    return new McpToolError(`MCP server ${where} answered with a malformed message`, { code: 'mcp_malformed_result', details, cause: error });
  if (error instanceof Error && error.name === 'AbortError')
    return new McpUnavailableError(`the call to MCP server ${where} was aborted`, { code: 'mcp_aborted', details, cause: error });
  return new McpUnavailableError(`MCP server ${where} failed: ${shortText(message)}`, { details, cause: error });
}
