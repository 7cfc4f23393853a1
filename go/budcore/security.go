package budcore

/*
#include <budcore/budcore.h>
*/
import "C"

// Security (docs/security.md): role bindings and the audit log. With `security.rbac: true`
// every call is checked against the caller's roles; a refusal is an *Error with Code Security
// naming the principal, a submit over the tenant's limits Code RateLimited with RetryAfterMs.

// BindRole grants a role: {"principal": "user:erin", "role": "editor", "project_id": null}.
// It returns the binding record.
func (p *Platform) BindRole(c Caller, bindingJSON string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_bind_role(out, p.raw, cc, cText(bindingJSON), C.size_t(len(bindingJSON)))
	})
}

// UnbindRole revokes a role (the same document).
func (p *Platform) UnbindRole(c Caller, bindingJSON string) error {
	_, err := p.call(&c, func(_ *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_unbind_role(p.raw, cc, cText(bindingJSON), C.size_t(len(bindingJSON)))
	})
	return err
}

// RoleBindings returns the tenant's role bindings {"items": [...]}, of one principal when it is
// not "".
func (p *Platform) RoleBindings(c Caller, principal string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_role_bindings(out, p.raw, cc, cText(principal), C.size_t(len(principal)))
	})
}

// Audit returns a page of the tenant's audit log; query as {"object_id": "...", "limit": 100}
// or "".
func (p *Platform) Audit(c Caller, query string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_audit(out, p.raw, cc, cText(query), C.size_t(len(query)))
	})
}

// AuditVerify checks every tenant's audit chain: {"ok", "entries", "head_hash", "heads", "problems", ...}.
func (p *Platform) AuditVerify(c Caller) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_audit_verify(out, p.raw, cc)
	})
}

// AuditVerifyAnchored is AuditVerify with anchors: a JSON list of entry hashes kept outside the
// store (heads published earlier), each of which must still be chained.
func (p *Platform) AuditVerifyAnchored(c Caller, anchorsJSON string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_audit_verify_anchored(out, p.raw, cc, cText(anchorsJSON), C.size_t(len(anchorsJSON)))
	})
}

// Compact compacts the store now by the config's retention (platform admins): {"events_removed",
// "audit_removed", "usage_removed", "checkpoints"}. A watch from before a tenant's event
// checkpoint then fails with code Gone.
func (p *Platform) Compact(c Caller) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_compact(out, p.raw, cc)
	})
}
