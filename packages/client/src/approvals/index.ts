export { decide, promoteApproval } from './decide.js';
export { listPendingApprovals } from './list-pending-approvals.js';
export type { PendingApprovalInfo } from './list-pending-approvals.js';
export type { ApprovalContext } from './approval-context.js';
