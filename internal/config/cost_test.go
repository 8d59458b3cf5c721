package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"agent/internal/budget"
)

func TestModelsAndBudgetFromTheUserFile(t *testing.T) {
	f := newFixture(t)
	f.user(t, `
[models."fake-model"]
window = 1000000
price_input = 100
price_output = 1.5

[models."gpt-4.1"]
price_cache_read = 0.25

[budget]
tokens = 400000
usd = 5
time = "30m"
`)
	c, warns, err := f.load(t, Flags{})
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if c.Budget != (budget.Limits{Tokens: 400000, USD: 5, Time: 30 * time.Minute}) {
		t.Errorf("budget %+v", c.Budget)
	}
	p := c.Prices()
	if pr, ok := p.Lookup("fake-model"); !ok || pr.Input != 100 || pr.Output != 1.5 {
		t.Errorf("fake-model price %+v %v", pr, ok)
	}
	if pr, ok := p.Lookup("gpt-4.1"); !ok || pr.CacheRead != 0.25 || pr.Input != 2 {
		t.Errorf("gpt-4.1: one field overridden, the rest from the list: %+v", pr)
	}
	if p.Window("fake-model") != 1000000 {
		t.Errorf("window %d", p.Window("fake-model"))
	}
}

func TestProjectFileMayOnlyLowerTheBudgetAndNotPrice(t *testing.T) {
	f := newFixture(t)
	f.user(t, "[budget]\ntokens = 1000\nusd = 5\n")
	f.project(t, `
[budget]
tokens = 5000
usd = 1
time = "10m"

[models."gpt-4.1"]
price_input = 0
price_output = 0
window = 50000
`)
	c, warns, err := f.load(t, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Budget != (budget.Limits{Tokens: 1000, USD: 1, Time: 10 * time.Minute}) {
		t.Errorf("budget %+v: the project may lower usd and add a time limit, not raise tokens", c.Budget)
	}
	joined := strings.Join(warns, "\n")
	if !strings.Contains(joined, "may only lower the budget") || !strings.Contains(joined, `[models."gpt-4.1"] prices ignored`) {
		t.Errorf("warnings: %s", joined)
	}
	p := c.Prices()
	if pr, _ := p.Lookup("gpt-4.1"); pr.Input != 2 {
		t.Errorf("a project file made gpt-4.1 cost %v", pr.Input)
	}
	if p.Window("gpt-4.1") != 50000 {
		t.Errorf("the project's window was not taken")
	}
}

func TestBadCostValuesAreClearErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"[models.\"m\"]\nprice_input = \"cheap\"\nprice_output = 1\n", `key "models.\"m\".price_input": must be a price`},
		{"[models.\"m\"]\nprice_input = -1\nprice_output = 1\n", "must be a price"},
		{"[models.\"m\"]\nprice_input = 1e9\nprice_output = 1\n", "must be a price"},
		{"[models.\"m\"]\nprice_inptu = 1\n", `did you mean "price_input"`},
		{"[models.\"m\"]\nprice_input = 1\n", "set both price_input and price_output"},
		{"[models.\"m\"]\nwindow = 10\n", "whole number of tokens"},
		{"models = 3\n", "must be a table"},
		{"[models]\nm = 3\n", "must be a table"},
		{"[budget]\ntokens = -4\n", "budget.tokens"},
		{"[budget]\ntokens = 1.5\n", "budget.tokens"},
		{"[budget]\nusd = 0\n", "budget.usd"},
		{"[budget]\ntime = \"2d\"\n", "budget.time"},
		{"[budget]\ntokns = 4\n", `did you mean "budget.tokens"`},
	} {
		f := newFixture(t)
		f.user(t, c.text)
		_, _, err := f.load(t, Flags{})
		var ce *Error
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
}
