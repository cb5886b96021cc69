-- A company's CNPJ may be the alphanumeric form issued since July 2026 (twelve characters of 0-9 and
-- A-Z, then two check digits), stored upper case without punctuation, like a buyer's.
ALTER TABLE companies DROP CONSTRAINT IF EXISTS companies_cnpj_check;
ALTER TABLE companies ADD CONSTRAINT companies_cnpj_check CHECK (cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$');
