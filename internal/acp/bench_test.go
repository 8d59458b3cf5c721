package acp

import (
	"context"
	"io"
	"log/slog"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/protocol"
)

// BenchmarkChunk: what a streamed piece of the answer costs on its way to
// the editor (the session's subscriber: a session/update notification
// encoded and written, as agent acp writes it to stdout), against a
// subscriber that hands the update to another goroutine as the TUI's does.
func BenchmarkChunk(b *testing.B) {
	u := protocol.Update{Kind: protocol.UpdateText, Text: "a streamed token "}
	b.Run("acp", func(b *testing.B) {
		inR, _ := io.Pipe() // the editor sends nothing
		srv := newServer(context.Background(), Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		srv.conn = sdk.NewAgentSideConnection(srv, &lineWriter{w: io.Discard}, inR)
		ss := &session{id: "acp-bench", srv: srv}
		ss.tr = newTranslator(ss)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ss.onUpdate(u)
		}
	})
	b.Run("channel", func(b *testing.B) {
		ch := make(chan protocol.Update, 1024)
		done := make(chan struct{})
		go func() {
			for range ch {
			}
			close(done)
		}()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ch <- u
		}
		close(ch)
		<-done
	})
}

// BenchmarkServeInitialize: Serve from its start to the initialize answer
// written (in process: what `agent acp` adds to the binary's start).
func BenchmarkServeInitialize(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	for i := 0; i < b.N; i++ {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan struct{})
		go func() {
			_ = Serve(context.Background(), Options{In: inR, Out: outW})
			close(done)
		}()
		go inW.Write(req)
		buf := make([]byte, 4096)
		if n, err := outR.Read(buf); err != nil || n == 0 {
			b.Fatal(err)
		}
		b.StopTimer()
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-done
		b.StartTimer()
	}
}
