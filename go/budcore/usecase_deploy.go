package budcore

/*
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

// Use-case deployments on a Platform (docs/usecases.md "Deploying"). Records are the
// library's JSON: {"id", "template_id", "template_version", "parameters", "status",
// "pipeline_run_id", "components": [{"instance_id", "job_id", "job_status", ...}], ...}.

// DeployUsecase resolves a template ("<id>" or "<id>@<version>": the tenant's catalog, else a
// shipped one) with paramsJSON ("" for none), stores the deployment record and starts its
// pipeline run. A bad parameter is an *Error with Code Invalid naming its path.
func (p *Platform) DeployUsecase(c Caller, template, paramsJSON string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_deploy_usecase(out, p.raw, cc, cText(template), C.size_t(len(template)),
			cText(paramsJSON), C.size_t(len(paramsJSON)))
	})
}

// Deployment returns a deployment record with its jobs' statuses now.
func (p *Platform) Deployment(c Caller, id string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_deployment(out, p.raw, cc, cText(id), C.size_t(len(id)))
	})
}

// Deployments returns the tenant's deployment records as a JSON list, oldest first.
func (p *Platform) Deployments(c Caller) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_deployments(out, p.raw, cc)
	})
}

// TeardownDeployment cancels the deployment's jobs, dependents first, then its pipeline run;
// tearing down a torn-down deployment returns it unchanged.
func (p *Platform) TeardownDeployment(c Caller, id string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_teardown_deployment(out, p.raw, cc, cText(id), C.size_t(len(id)))
	})
}
