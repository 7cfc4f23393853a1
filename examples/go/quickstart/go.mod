module github.com/budcore/budcore/examples/go/quickstart

go 1.21

require github.com/budcore/budcore/go/budcore v0.0.0

replace github.com/budcore/budcore/go/budcore => ../../../go/budcore
