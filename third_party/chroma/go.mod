module github.com/alecthomas/chroma/v2

go 1.25

require (
	github.com/alecthomas/assert/v2 v2.11.0
	github.com/alecthomas/repr v0.5.2
	github.com/dlclark/regexp2/v2 v2.2.1
)

require github.com/hexops/gotextdiff v1.0.3 // indirect
