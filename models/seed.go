package models

import (
	"context"
	"fmt"

	"concierge/memory"
)

// DemoAccount is one seeded account, for the log line and the README.
type DemoAccount struct {
	Email string
	Role  Role
	Name  string
}

// DemoAccounts are the accounts SeedDemo creates.
var DemoAccounts = []DemoAccount{
	{"john@example.com", RoleTraveler, "John Doe"},
	{"priya@example.com", RoleTraveler, "Priya Sharma"},
	{"support@example.com", RoleSupport, "Sam Support"},
	{"admin@example.com", RoleAdmin, "Alex Admin"},
}

// johnProfile is John Doe's travel profile. Identifiers (customer and member
// ids, passport number) are private: kept for tools, never put in a prompt.
func johnProfile() memory.Profile {
	return memory.Profile{
		"name":            "John Doe",
		"customer_id":     "CUST-10042",
		"home_city":       "San Francisco",
		"home_airport":    "SFO",
		"currency":        "USD",
		"seat_preference": "aisle",
		"preferred_tone":  "concise and friendly",
		"loyalty_programs": []any{
			map[string]any{"program": "United MileagePlus", "status": "Gold", "member_id": "UA-558-221-904"},
			map[string]any{"program": "Marriott Bonvoy", "status": "Titanium Elite", "member_id": "MB-7781-2290"},
		},
		"visas": []any{
			map[string]any{"type": "Schengen C (multiple entry)", "valid_until": "2027-03-31"},
			map[string]any{"type": "US (citizen)", "valid_until": "n/a"},
		},
		"passport_expiry": "2031-08-14",
		"insurance": map[string]any{
			"provider": "Allianz Travel", "plan": "AllTrips Premier",
			"covers": []any{"trip cancellation", "medical", "baggage delay"},
		},
	}
}

// johnNotes are John Doe's five dated global notes.
func johnNotes() []memory.Note {
	return []memory.Note{
		{Text: "Avoids checked bags on trips shorter than a week.", Keywords: []string{"baggage", "carryon"}, LastUpdateDate: "2025-03-02"},
		{Text: "Prefers aisle seats.", Keywords: []string{"seat", "aisle"}, LastUpdateDate: "2024-06-01"},
		{Text: "Likes staying in central, walkable neighbourhoods.", Keywords: []string{"hotel", "neighbourhood"}, LastUpdateDate: "2025-01-18"},
		{Text: "Likes to compare options side by side before choosing.", Keywords: []string{"options", "comparison"}, LastUpdateDate: "2024-11-09"},
		{Text: "Prefers rooms on high floors.", Keywords: []string{"hotel", "floor"}, LastUpdateDate: "2025-05-27"},
	}
}

// SeedDemo creates the demo accounts with password, John Doe's profile,
// notes and past trip. It does nothing when any account exists, and reports
// whether it seeded.
func (s *Store) SeedDemo(ctx context.Context, password string) (bool, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&User{}).Count(&n).Error; err != nil {
		return false, fmt.Errorf("models: seed: %w", err)
	}
	if n > 0 {
		return false, nil
	}
	users := map[string]*User{}
	for _, a := range DemoAccounts {
		u, err := s.CreateUser(ctx, a.Email, a.Name, a.Role, password)
		if err != nil {
			return false, fmt.Errorf("models: seed %s: %w", a.Email, err)
		}
		users[a.Email] = u
	}
	john := users["john@example.com"]
	seed := Actor{Kind: ActorSystem}
	if err := s.SetProfile(ctx, john.ID, johnProfile(), seed, "demo seed"); err != nil {
		return false, err
	}
	if err := s.SetProfile(ctx, users["priya@example.com"].ID, memory.Profile{"name": "Priya Sharma", "home_city": "Pune", "currency": "INR"}, seed, "demo seed"); err != nil {
		return false, err
	}
	for _, note := range johnNotes() {
		note.Source = memory.SourceSeed
		note.Scope = memory.ScopeDurable
		if _, err := s.Notes(memory.Limits{}).Add(ctx, NewNote{UserID: john.ID, Kind: KindGlobal, Note: note}, seed, "demo seed"); err != nil {
			return false, err
		}
	}
	trip := memory.Trip{Destination: "Paris", Route: "Istanbul (IST) → Paris (CDG)", Status: memory.TripTravelled, StartDate: "2025-09-12", EndDate: "2025-09-16",
		Purpose: "business", Flight: "Turkish Airlines TK1827, economy, aisle 23C", Hotel: "Hôtel du Marais, 4 nights, high floor"}
	if _, _, err := s.Notes(memory.Limits{}).Trips().Create(ctx, john.ID, trip, seed, "demo seed"); err != nil {
		return false, err
	}
	return true, nil
}
