package repomap

// future is a value computed on its own goroutine: a build runs the git
// recency beside the parse and the snapshot write beside the ranking, and
// waits for each where it is needed. wait may be called any number of
// times (a deferred wait makes sure no goroutine outlives its build).
type future[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// goValue runs fn on a new goroutine.
func goValue[T any](fn func() (T, error)) *future[T] {
	f := &future[T]{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.v, f.err = fn()
	}()
	return f
}

// wait returns fn's result once it has returned.
func (f *future[T]) wait() (T, error) {
	<-f.done
	return f.v, f.err
}
