CREATE TABLE audit_events (incident_id integer PRIMARY KEY, status text NOT NULL);
INSERT INTO audit_events VALUES (42, 'open');
