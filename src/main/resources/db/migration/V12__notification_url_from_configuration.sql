-- A notification's webhook URL is taken from the configuration when it is sent, as its secret already was: some
-- services put their secret in the URL, so it is not kept in the table, and a URL changed in the configuration
-- applies to the notifications still waiting.
ALTER TABLE notification DROP COLUMN url;
