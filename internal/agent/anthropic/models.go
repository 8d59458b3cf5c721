package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"time"
)

// listTimeout bounds one page of the model list.
const listTimeout = 5 * time.Second

// ListModels returns the ids of Anthropic's model list (GET /v1/models,
// every page), sorted, for a person choosing a model (/model in the TUI).
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	var out []string
	after := ""
	for page := 0; page < 20; page++ {
		u := p.baseURL + "/v1/models?limit=1000"
		if after != "" {
			u += "&after_id=" + url.QueryEscape(after)
		}
		ids, last, more, err := p.listPage(ctx, u)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
		if !more || last == "" {
			break
		}
		after = last
	}
	sort.Strings(out)
	return out, nil
}

func (p *Provider) listPage(ctx context.Context, u string) (ids []string, last string, more bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", false, err
	}
	req.Header.Set("anthropic-version", apiVersion)
	if p.cfg.APIKey != "" {
		req.Header.Set("x-api-key", p.cfg.APIKey)
	}
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, "", false, fmt.Errorf("model list: %s", p.redact(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", false, fmt.Errorf("model list: HTTP %d from %s/v1/models", resp.StatusCode, p.baseURL)
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		HasMore bool   `json:"has_more"`
		LastID  string `json:"last_id"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&page); err != nil {
		return nil, "", false, fmt.Errorf("model list: %v", err)
	}
	for _, m := range page.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, page.LastID, page.HasMore, nil
}
