package repomap

import (
	"slices"
	"strings"
	"testing"
)

const goSample = `// Package demo is a sample.
package demo

import (
	"net/url"
	xs "strings"
)

// Mux routes requests.
type Mux struct{ routes map[string]Handler }

type Handler interface {
	Serve(path string) error
}

type ID = int

const (
	Max    = 10
	minLen int = 2
)

var ErrNope = errors.New("nope")

func New() *Mux { return &Mux{} }

func (m *Mux) Handle(pattern string,
	h Handler) {
	m.routes[pattern] = h
	_ = url.PathEscape(xs.TrimSpace(pattern))
	helper(Max)
}

func helper(n int) int { return n }

func Map[K comparable, V any](m map[K]V) []K { return nil }

func init() { http.HandleFunc("/debug/x", nil) }
`

func TestParseGo(t *testing.T) {
	ft, err := parseGo("demo.go", []byte(goSample))
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ name, kind, sig, parent string }
	wants := []want{
		{"Mux", "type", "type Mux struct", ""},
		{"Handler", "type", "type Handler interface", ""},
		{"Serve", "method", "Serve(path string) error", "Handler"},
		{"ID", "type", "type ID = int", ""},
		{"Max", "const", "const Max = 10", ""},
		{"minLen", "const", "const minLen int = 2", ""},
		{"ErrNope", "var", `var ErrNope = errors.New("nope")`, ""},
		{"New", "func", "func New() *Mux", ""},
		{"Handle", "method", "func (m *Mux) Handle(pattern string, h Handler)", "Mux"},
		{"helper", "func", "func helper(n int) int", ""},
		{"Map", "func", "func Map[K comparable, V any](m map[K]V) []K", ""},
	}
	for _, w := range wants {
		i := slices.IndexFunc(ft.Defs, func(d Tag) bool { return d.Name == w.name })
		if i < 0 {
			t.Errorf("missing def %s", w.name)
			continue
		}
		d := ft.Defs[i]
		if d.Kind != w.kind || d.Signature != w.sig || d.Parent != w.parent {
			t.Errorf("%s: got kind=%q sig=%q parent=%q, want %q %q %q", w.name, d.Kind, d.Signature, d.Parent, w.kind, w.sig, w.parent)
		}
	}
	if ft.Package != "demo" || !slices.Equal(ft.Imports, []string{"net/url", "strings"}) {
		t.Errorf("package %q imports %v", ft.Package, ft.Imports)
	}
	for _, k := range []string{"net/url.PathEscape", "strings.TrimSpace", "helper", "Max", ".routes", "Handler"} {
		if ft.Refs[k] == 0 {
			t.Errorf("missing ref %q in %v", k, ft.Refs)
		}
	}
	for _, k := range []string{"url", "xs", "int", "string", "New"} {
		if ft.Refs[k] != 0 {
			t.Errorf("unexpected ref %q", k)
		}
	}
	if len(ft.Routes) != 1 || ft.Routes[0].Pattern != "/debug/x" || ft.Routes[0].Call != "http.HandleFunc" {
		t.Errorf("routes %+v", ft.Routes)
	}
}

func TestGoMain(t *testing.T) {
	ft, err := parseGo("main.go", []byte("package main\n\nfunc main() {}\n"))
	if err != nil || !ft.Main {
		t.Fatalf("main not detected: %v %+v", err, ft)
	}
}

// Samples shared by the line scanner and tree-sitter tests: each entry
// lists definitions (name:kind[:parent]) both extractors must find.
var langSamples = []struct {
	lang, name, src string
	defs            []string
}{
	{"python", "pkg/mod.py", `"""Doc.

class NotAClass:
"""
import os
from . import sibling, other
from .util import helper

LIMIT = 3
a = b = 4

class Widget(Base):
    kind = "w"

    def __init__(self, x):
        self.x = x

    @property
    def size(self):
        def inner():
            pass
        return 1

async def fetch(url,
                timeout=None):
    return None

if __name__ == "__main__":
    fetch("x")
`, []string{"LIMIT:variable", "a:variable", "b:variable", "Widget:class", "kind:variable:Widget", "__init__:method:Widget", "size:method:Widget", "fetch:function"}},
	{"javascript", "lib/app.js", `const express = require('express')
const { join } = require('path')
const LIMIT = 10

class Server extends Base {
  #secret = 1
  static name = 'srv'

  constructor (opts) {
    super(opts)
  }

  async start (port) {
    return port
  }

  #hidden () {
    if (x) {
      return 1
    }
  }
}

function helper (a, b) {
  return a + b
}

const handler = async (req, res) => {
  res.send('ok')
}

module.exports.run = function () {}
app.get('/users/:id', handler)
`, []string{"LIMIT:const", "Server:class", "secret:field:Server", "name:field:Server", "start:method:Server", "hidden:method:Server", "helper:function", "handler:function"}},
	{"typescript", "src/api.ts", `import { Foo } from './foo'

export interface Options {
  port: number
}

export type ID = string | number

export enum Color { Red, Green }

export abstract class Store<T> {
  private items: T[] = []

  abstract load(id: ID): Promise<T>

  public save(item: T): void {
    this.items.push(item)
  }
}

export function makeStore(opts: Options): Store<Foo> {
  return null as any
}

export const route = (path: string): string => path
`, []string{"Options:interface", "ID:type", "Color:enum", "Store:class", "items:field:Store", "save:method:Store", "makeStore:function", "route:function"}},
	{"rust", "src/lib.rs", `use crate::config::Config;
mod util;

pub struct Server {
    port: u16,
}

pub enum State { Idle, Busy }

pub trait Handler {
    fn handle(&self, req: &str) -> String;
}

impl Server {
    pub fn new(port: u16) -> Self {
        Server { port }
    }

    pub async fn run(&self) {}
}

pub const MAX: usize = 8;

macro_rules! log {
    () => {};
}

pub fn start() {}
`, []string{"Server:struct", "State:enum", "Handler:trait", "new:method", "run:method", "MAX:const", "log:macro", "start:function"}},
	{"java", "src/main/java/com/x/App.java", `package com.x;

import java.util.List;
import com.x.util.Helper;

public class App {
    private static final int LIMIT = 3;

    public App() {}

    public static void main(String[] args) {
        run(args);
    }

    @Override
    public String toString() {
        return "App";
    }

    interface Listener {
        void onEvent(String e);
    }
}

enum Mode { FAST, SLOW }
`, []string{"App:class", "LIMIT:field:App", "main:method:App", "toString:method:App", "Listener:interface", "Mode:enum"}},
}

func checkDefs(t *testing.T, engine string, ft *FileTags, defs []string) {
	t.Helper()
	for _, want := range defs {
		parts := strings.Split(want, ":")
		i := slices.IndexFunc(ft.Defs, func(d Tag) bool {
			return d.Name == parts[0] && d.Kind == parts[1] && (len(parts) < 3 || d.Parent == parts[2])
		})
		if i < 0 {
			var got []string
			for _, d := range ft.Defs {
				got = append(got, d.Name+":"+d.Kind+":"+d.Parent)
			}
			t.Errorf("%s %s: missing %s; got %v", engine, ft.Lang, want, got)
		}
	}
	for _, d := range ft.Defs {
		if d.Name == "NotAClass" || d.Name == "express" || d.Name == "join" || d.Name == "constructor" {
			t.Errorf("%s %s: unexpected def %+v", engine, ft.Lang, d)
		}
		if d.Signature == "" || strings.Contains(d.Signature, "\n") {
			t.Errorf("%s %s: bad signature %q", engine, ft.Lang, d.Signature)
		}
	}
}

func TestLineScanner(t *testing.T) {
	for _, s := range langSamples {
		ft := scanLines(s.lang, s.name, []byte(s.src))
		checkDefs(t, "line", ft, s.defs)
	}
}

func TestParseOtherImportsAndRoutes(t *testing.T) {
	for _, s := range langSamples {
		ft, err := parseOther(s.lang, s.name, []byte(s.src))
		if err != nil {
			t.Fatal(err)
		}
		if ft.Engine != otherEngine {
			t.Errorf("engine %q", ft.Engine)
		}
		checkDefs(t, otherEngine, ft, s.defs)
		switch s.lang {
		case "python":
			if !ft.Main || !slices.Contains(ft.Imports, ".sibling") || !slices.Contains(ft.Imports, ".util") {
				t.Errorf("python main=%v imports=%v", ft.Main, ft.Imports)
			}
		case "javascript":
			if !slices.Contains(ft.Imports, "express") || len(ft.Routes) != 1 || ft.Routes[0].Pattern != "/users/:id" {
				t.Errorf("js imports=%v routes=%+v", ft.Imports, ft.Routes)
			}
		case "rust":
			if !slices.Contains(ft.Imports, "mod:util") {
				t.Errorf("rust imports=%v", ft.Imports)
			}
		case "java":
			if !ft.Main || !slices.Contains(ft.Imports, "com.x.util.Helper") {
				t.Errorf("java main=%v imports=%v", ft.Main, ft.Imports)
			}
		}
		if ft.Refs["handler"] == 0 && s.lang == "javascript" {
			t.Errorf("js refs %v", ft.Refs)
		}
	}
}

func TestSkipReason(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"a.go", "// Code generated by x. DO NOT EDIT.\n\npackage a\n", "generated"},
		{"a.go", "package a\n\n// Code generated by x. DO NOT EDIT.\n", ""},
		{"a.py", "# @generated\nx = 1\n", "generated"},
		{"a.min.js", "x", "minified"},
		{"a.js", "var a=1;" + strings.Repeat("b(),", 1000) + "\n", "minified"},
		{"a.js", "function f () {\n  return 1\n}\n", ""},
	}
	for _, c := range cases {
		if got := skipReason(c.name, []byte(c.src)); got != c.want {
			t.Errorf("skipReason(%s, %.30q) = %q, want %q", c.name, c.src, got, c.want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	qi := parseQuery("why does ServeMux reject this path in `net/http/server.go`? see parse_headers() and url.Parse")
	if qi.mentionOf("ServeMux") != 1 || qi.mentionOf("parse_headers") != 1 || qi.mentionOf("Parse") != 1 {
		t.Errorf("strong mentions: %v", qi.exact)
	}
	if s := qi.mentionOf("path"); s <= 0 || s >= 1 {
		t.Errorf("plain word strength %v", s)
	}
	if qi.mentionOf("why") != 0 || qi.mentionOf("this") != 0 {
		t.Errorf("function words must not count: %v", qi.exact)
	}
	if qi.mentionOf("servemux") == 0 {
		t.Error("case-insensitive match missing")
	}
	qi = parseQuery("Explain how the Explain command works. Where is it?")
	if qi.mentionOf("Explain") != 0.8 || qi.mentionOf("Where") != 0 {
		t.Errorf("capitalised words: %v", qi.exact)
	}
	qi = parseQuery("see `net/http/server.go`")
	if !slices.Contains(qi.paths, "net/http/server.go") {
		t.Errorf("paths %v", qi.paths)
	}
}

func TestStripComments(t *testing.T) {
	if got := stripComments("def f(a, # first\n      b='#x'): # trailing\n", true); oneLine(got, 100) != "def f(a, b='#x'):" {
		t.Errorf("python: %q", got)
	}
	if got := stripComments("fn f(a: u8 /* x */, s: &str) // y\n", false); oneLine(got, 100) != "fn f(a: u8 , s: &str)" {
		t.Errorf("c-like: %q", got)
	}
}
