/** Answers of the settings endpoints (docs/api.md: API keys, Members, Workspace settings, Retention, Cost budgets, Credentials, Alignment). */
import type { Role } from '../lib/roles'

export interface ApiKey { id: string; name: string; key_last4: string; project_id: string; role: Role; created_at: string; last_used_at: string | null }
export interface CreatedKey extends ApiKey { key: string }

export interface Member {
  user_id: string
  email: string
  role: Role | null
  workspace_roles: Array<{ workspace_id: string; slug: string; role: Role }>
  status: 'active' | 'invited' | 'expired'
  invitation_expires_at: string | null
}
export interface Invited { user_id: string; email: string; role: Role; workspace_id: string | null; invitation_token: string; invitation_expires_at: string; existing_user: boolean }

export interface CaptureText { capture_text: boolean }
export interface BroadenSources { broaden_sources: boolean; search_credential_configured: boolean; mode: 'open_web' | 'closed_knowledge_base' }
export interface CostProvider { cost_provider: string; effective_provider: string }
export interface EngineSettings { engines: Record<string, boolean>; gated_by_organization: string[] }

export interface Retention { enabled: boolean; hours: number; effective_hours: number; default_hours: number; updated_at: string | null; rollups_thin_out: boolean; warning?: string }
export interface RetentionPreview { hours: number; spans_to_delete: number; traces_affected: number; oldest_deleted: string | null; confirm_token: string }

export interface BudgetPeriod { cap_usd: number; warn_pct: number }
export interface CostBudget { budgets: { day?: BudgetPeriod; month?: BudgetPeriod }; current: { day_spend_usd: number; month_spend_usd: number } }

export interface LlmCredential { configured: boolean; provider: string; model_id: string; api_key_last4: string; api_base: string | null; fallback_enabled: boolean }
export interface SearchCredential { configured: boolean; status: string; api_key_last4: string }

export interface AlignmentPolicy { enabled: boolean; description: string }
export interface AlignmentDoc { doc_id: string; filename: string; content_type: string; bytes: number; text_chars: number; status: 'uploaded' | 'embedded' | 'failed'; chunks: number; embedding_model: string; error: string; uploaded_at: string; updated_at: string }
