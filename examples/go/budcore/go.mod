module github.com/budcore/budcore/examples/go/budcore

go 1.21
