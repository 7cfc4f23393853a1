module github.com/budcore/budcore/go/budcore

go 1.21
