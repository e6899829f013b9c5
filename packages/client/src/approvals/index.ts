export { decide, osUserName, promoteApproval } from './decide.js';
export type { ClientDecisionInput } from './decide.js';
export { getApproval } from './get-approval.js';
export type { ApprovalInfo } from './get-approval.js';
export { listPendingApprovals } from './list-pending-approvals.js';
export type { PendingApprovalInfo } from './list-pending-approvals.js';
export type { ApprovalContext } from './approval-context.js';
