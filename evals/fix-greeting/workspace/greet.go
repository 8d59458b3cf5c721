package greet

// Greeting returns the greeting for name.
func Greeting(name string) string {
	return "Hello " + name
}
