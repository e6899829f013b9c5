export { connectMcpServer } from './connect/connect-mcp-server.js';
export { MESSAGE_BUDGET_FACTOR } from './connect/cap-message-bytes.js';
export type { MessageByteLimit } from './connect/cap-message-bytes.js';
export type { ConnectMcpServerOptions, McpConnection, McpTransportKind } from './connect/connect-mcp-server.js';
export { prepareServerConnection } from './connect/prepare-server-connection.js';
export type {
  PrepareServerConnectionOptions,
  PreparedConnectOptions,
  PreparedServerConnection,
} from './connect/prepare-server-connection.js';
export { listServerTools } from './requests/list-server-tools.js';
export type { ListServerToolsOptions } from './requests/list-server-tools.js';
export { callServerTool } from './requests/call-server-tool.js';
export type { CallServerToolOptions, McpToolCallResult } from './requests/call-server-tool.js';
export { McpConnectError } from './errors/mcp-connect-error.js';
export type { McpConnectErrorOptions } from './errors/mcp-connect-error.js';
export { MCP_ERROR_CODES } from './errors/mcp-error-codes.js';
export type { McpErrorCode } from './errors/mcp-error-codes.js';
export { messageOf } from './errors/describe-sdk-error.js';
export { startAuthorization, takeAuthorizationFlow } from './auth/authorize-server.js';
export type { OAuthRequestOptions } from './auth/authorize-server.js';
