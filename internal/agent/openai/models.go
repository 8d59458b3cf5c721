package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// windowLookupTimeout bounds the model-list request: a server that does not
// answer quickly leaves the window to the table and the default.
const windowLookupTimeout = 3 * time.Second

// ContextWindow asks the endpoint's model list (GET /models) for model's
// context window, as local and hosted servers report it: context_length
// (OpenRouter, LM Studio), max_model_len (vLLM), context_window,
// max_context_length, or meta.n_ctx_train / meta.n_ctx (llama.cpp). It
// returns 0 and an error when the list says nothing about it (OpenAI's own
// list does not).
func (p *Provider) ContextWindow(ctx context.Context, model string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, windowLookupTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.baseURL+"/models", nil)
	if err != nil {
		return 0, err
	}
	if p.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	}
	client := p.cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("model list: %s", p.redact(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("model list: HTTP %d", resp.StatusCode)
	}
	var list struct {
		Data []struct {
			ID               string `json:"id"`
			ContextLength    int    `json:"context_length"`
			MaxModelLen      int    `json:"max_model_len"`
			ContextWindow    int    `json:"context_window"`
			MaxContextLength int    `json:"max_context_length"`
			Meta             struct {
				NCtxTrain int `json:"n_ctx_train"`
				NCtx      int `json:"n_ctx"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil {
		return 0, fmt.Errorf("model list: %v", err)
	}
	for _, m := range list.Data {
		if m.ID != model {
			continue
		}
		for _, n := range []int{m.ContextLength, m.MaxModelLen, m.ContextWindow, m.MaxContextLength, m.Meta.NCtx, m.Meta.NCtxTrain} {
			if n >= 1024 {
				return n, nil
			}
		}
		return 0, fmt.Errorf("model list: %s has no context length", model)
	}
	return 0, fmt.Errorf("model list: no model %s", model)
}
